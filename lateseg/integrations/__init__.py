"""Optional integrations with other frameworks; each needs its extra
(``pip install 'lateseg[langchain]'``) or its own environment (NVIDIA kvpress pins an
older transformers: ``make kvpress-env``) and is imported on its own
(``from lateseg.integrations.langchain import LatesegRetriever``,
``from lateseg.integrations.kvpress import LatesegKVPress``)."""

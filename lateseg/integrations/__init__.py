"""Optional integrations with other frameworks; each needs its extra
(``pip install 'lateseg[langchain]'``) and is imported on its own
(``from lateseg.integrations.langchain import LatesegRetriever``)."""

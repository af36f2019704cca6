"""Scale-out engines for ingestion (``pip install 'lateseg[ray]'``):
:mod:`lateseg.scale.ray_engine` runs parsing and encoding on a Ray cluster while the
calling process stays the index's single writer. Use it through
``Pipeline.ingest(..., engine="ray")`` or ``lateseg ingest ... --engine ray``."""

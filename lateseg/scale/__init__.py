"""Ingest engines (:mod:`lateseg.scale.engines`): one interface that turns parse jobs into
what the index stores, run here (:class:`~lateseg.scale.engines.LocalEngine`) or on a Ray
cluster (:mod:`lateseg.scale.ray_engine`, ``pip install 'lateseg[ray]'``) while the calling
process stays the index's single writer. Use them through ``Pipeline.ingest(...,
engine="ray")`` or ``lateseg ingest ... --engine ray``."""

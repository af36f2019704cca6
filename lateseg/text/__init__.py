"""Text rules shared by every stage: where text may be cut (:mod:`lateseg.text.boundaries`)."""

"""Session lineage: the lineage page and panel, with the pure graph code in ``graph``."""

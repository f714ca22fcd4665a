"""Train small models on svbench rewards (``pip install svbench[train]``)."""

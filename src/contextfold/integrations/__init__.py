"""Framework integrations, one module per framework; each imports its framework itself."""

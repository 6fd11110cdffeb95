"""Adapters that fit contextfold into agent frameworks, one module per framework."""

"""Internal package; the public API is `contextfold`."""

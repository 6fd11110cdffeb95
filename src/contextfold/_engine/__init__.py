"""Internal package: applying plans to conversations; the public API is `contextfold`."""

"""What the user stated: sentences, cues, kinds, and the user-state card built from them."""

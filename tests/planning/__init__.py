"""Tests of the pure planning layer."""

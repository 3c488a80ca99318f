"""Private helpers shared across the package's subpackages (not a public API)."""

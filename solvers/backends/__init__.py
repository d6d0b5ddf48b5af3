"""Built-in solver backends, one module per solver family."""

"""Check functions called by the notebooks' test cells, one module per lesson."""

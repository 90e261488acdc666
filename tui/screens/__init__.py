"""Screens of the simt UI: catalog, kernel (step-through), compare, and small dialogs."""

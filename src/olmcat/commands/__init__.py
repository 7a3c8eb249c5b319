"""One module per command group; ``olmcat.cli`` registers them."""

"""operator-controller v1.11.0's registry+v1 renderer: the objects it applies for a bundle."""

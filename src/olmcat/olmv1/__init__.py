"""OLM v1: what operator-controller v1.11.0 does with a registry+v1 bundle.

``bundle`` reads a bundle as rukpak reads it (:class:`~olmcat.olmv1.bundle.RegistryV1`);
``validators`` holds the registry+v1 content checks; ``render`` turns a bundle into the objects
operator-controller applies.
"""

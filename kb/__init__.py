"""Knowledge base data (YAML) shipped with traindx."""

"""traindx probes."""

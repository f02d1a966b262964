"""The model of the torch API: what a call to torch (and the libraries around it) means for a training run."""

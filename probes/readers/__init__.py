"""Torch-free readers: evidence from what a run leaves behind — code (``code``), configs
(``config``), metric logs (``logs``), the curves in them (``curves``) and plots (``plot``).

Nothing here imports torch: a diagnosis from artifacts stays light.
"""

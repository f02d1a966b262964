"""Framework integrations: Lightning and Hugging Face callbacks and the DDP watcher.

Each adapts a framework's own hooks to :class:`traindx.probes.live.monitor.Monitor`. Importing a
module here imports neither its framework nor torch until a callback is built.
"""

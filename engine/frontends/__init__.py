"""Front-ends on top of the engine core: the command line (``cli``) and the MCP server
(``mcp_server``). They may import the probes; the core (everything in ``traindx.engine`` outside
this package) may not.
"""

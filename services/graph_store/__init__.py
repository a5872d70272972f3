"""graph_store service: the surface knowledge graph (nodes, edges, provenance) of each session."""

"""JSON Schemas for the knowledge base, answers files and reports."""

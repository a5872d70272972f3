"""The six-dimension answer rubric: LLM-batched or offline lexical."""

"""The question service: opening, follow-up (unary and streamed), closing and rephrased questions."""

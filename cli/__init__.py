"""Terminal client of the interview suite (`python -m cli`).

Interactive by default: pick a concept, answer questions, watch each turn's stages run. The same
client has non-interactive subcommands (`start`, `answer`, `export`, `sessions list`) and takes
`--target host:port` to drive any deployment of the public InterviewService.
"""

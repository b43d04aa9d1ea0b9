"""The output stage: a model's raw output through a PEG arena.

Input: the arena llama.cpp built for a request and the raw output (whole, partial or as
a stream of chunks). Output: ``parse`` gives the chat message llama.cpp returns (or the
error it raises), with where the parser stopped; ``streaming`` gives the partial message
and the diffs llama-server emits after every chunk.
"""

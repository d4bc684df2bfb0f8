"""Pyrometer's Python model engine: profiles a model in the user's own interpreter.

    python pyrometer_engine REQUEST.json      (this folder: its __main__.py)

The request names the model and the tasks to run on it, in order; the model is loaded once.
Models: a torch.export program (.pt2), TorchScript of any version (.pt), or a Python file and a
factory, "model.py:build", returning an nn.Module or (module, example inputs). A state_dict is
refused: it holds weights without a model.

    {"model": "...", "device": "cpu"|"cuda", "inputs": [{"shape": [1, 3, 224, 224], "dtype": "float32"}],
     "threads": 0, "tasks": [{"task": "latency", "warmup": 10, "iterations": 50}, ...]}

Tasks: "latency" (timed runs), "ops" (every top-level operator of one forward with its argument
and output shapes and its module, for the FLOPs formulas Pyrometer shares between its engines),
"profile" (runs under torch.profiler, their operators with module and memory, and the trace),
"sweep" (latency per batch size and variant) and "compare" (variants against the baseline).

Everything the host reads goes as JSON lines to the file descriptor PYROMETER_STATUS_FD names,
one record per line (protocol PROTOCOL, said in "hello"; a list of results is streamed as
"begin", one "item" per element and "end"); the model's own output is left alone. Exit status:
0 done, 2 the request failed (the "error" event says why), 3 no torch in this interpreter.
"""

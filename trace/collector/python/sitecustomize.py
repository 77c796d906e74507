# Put first on PYTHONPATH by `parascope-cli record --world N` and `record --op-shapes`: in every
# Python process of the run, starts the stand-in process group (parascope_world) and turns on
# PyTorch's NVTX op ranges with shapes at `import torch` (parascope_op_shapes), then runs the
# sitecustomize this one shadows (Debian's, a virtual environment's), so the interpreter's own
# start-up is unchanged.
import os
import sys


def _chain_next_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == here:
            continue
        candidate = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(candidate):
            import importlib.util

            spec = importlib.util.spec_from_file_location("_parascope_chained_sitecustomize", candidate)
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
            except Exception as e:  # the shadowed file's failure must not stop the program
                sys.stderr.write("parascope: the shadowed %s failed: %s\n" % (candidate, e))
            return


if os.environ.get("PARASCOPE_OP_SHAPES") == "1":
    try:
        import parascope_op_shapes

        parascope_op_shapes.install()
    except Exception as e:
        sys.stderr.write("parascope: op shapes could not be set up: %s\n" % e)
if os.environ.get("PARASCOPE_WORLD_SIZE"):
    try:
        import parascope_world

        parascope_world.activate_from_env()
    except Exception as e:
        sys.stderr.write("parascope: the stand-in process group could not start: %s\n" % e)
        if os.environ.get("PARASCOPE_WORLD_STRICT") == "1":
            raise
_chain_next_sitecustomize()

# about: methods of an external class reached through a chain of calls
# externals: scored
# path: app.py
from pathlib import Path


def config_exists(root):
    p = Path(root)
    #   ^ calls: pathlib.Path
    return p.joinpath("setup.cfg").exists()
    #        ^ calls: pathlib.Path.joinpath
    #                              ^ calls: pathlib.Path.exists


config_exists("/tmp")
#^ calls: app.config_exists

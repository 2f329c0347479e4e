# about: a function stored on another object's attribute and called through it
# path: app.py
class Config:
    pass


def default_loader():
    return {}


def load(config):
    return config.loader()
    #             ^ calls: app.default_loader


cfg = Config()
#     ^ calls: app.Config
cfg.loader = default_loader
load(cfg)
#^ calls: app.load

# about: functions of stdlib modules are named by the import path used
# externals: scored
# path: app.py
import json
import os.path


def save(name, data):
    path = os.path.join("/tmp", name)
    #              ^ calls: os.path.join
    return path, json.dumps(data)
    #                 ^ calls: json.dumps


save("x.json", {"a": 1})
#^ calls: app.save

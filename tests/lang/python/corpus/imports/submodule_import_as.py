# about: `import pkg.sub as s` binds s to the submodule
# path: pkg/__init__.py
# path: pkg/sub.py
def ping():
    return "pong"
# path: main.py
import pkg.sub as s

s.ping()
# ^ calls: pkg.sub.ping

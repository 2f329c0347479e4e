# about: import pkg.sub binds pkg; pkg.sub.f() reaches the submodule's function
# path: pkg/__init__.py
# path: pkg/sub.py
def ping():
    return "pong"
# path: main.py
import pkg.sub

pkg.sub.ping()
#       ^ calls: pkg.sub.ping

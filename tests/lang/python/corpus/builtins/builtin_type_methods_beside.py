# about: methods of builtin types (str, list, dict) are set aside; the project function whose
# about: result they are called on is an edge
# path: main.py
def words():
    return "a b"


def run():
    parts = words().split()
    #       ^ calls: main.words
    parts.append("c")
    return ",".join(parts).upper()


run()
#^ calls: main.run

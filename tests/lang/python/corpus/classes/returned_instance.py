# about: a function returns an instance; a method is called on the call's result and on a
# about: local holding it
# path: main.py
class Conn:
    def close(self):
        pass


def connect():
    return Conn()
    #      ^ calls: main.Conn


connect().close()
#^ calls: main.connect
#         ^ calls: main.Conn.close
c = connect()
#   ^ calls: main.connect
c.close()
# ^ calls: main.Conn.close

# about: values yielded by a generator type the loop variable
# path: app.py
class Row:
    def values(self):
        return [1]


def rows():
    yield Row()
    #     ^ calls: app.Row


def collect():
    out = []
    for row in rows():
    #          ^ calls: app.rows
        out.extend(row.values())
        #              ^ calls: app.Row.values
    return out


collect()
#^ calls: app.collect

# about: a with statement calls __enter__ and __exit__ of the context manager's class
# path: app.py
class Transaction:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def commit(self):
        return True


def save():
    with Transaction() as tx:
    #    ^ calls: app.Transaction
    #    ^ calls: app.Transaction.__enter__
    #    ^ calls: app.Transaction.__exit__
        tx.commit()
        #  ^ calls: app.Transaction.commit


save()
#^ calls: app.save

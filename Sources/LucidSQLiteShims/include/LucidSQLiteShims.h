#ifndef LUCID_SQLITE_SHIMS_H
#define LUCID_SQLITE_SHIMS_H

struct sqlite3;

/// `sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, 0)`: closing this connection, even the
/// last one, leaves a WAL as it is (no checkpoint into the main file, no deletion). sqlite3_db_config is
/// variadic, which Swift cannot call. Returns an SQLite result code.
int lucid_disable_checkpoint_on_close(struct sqlite3 *db);

#endif

#include <sqlite3.h>
#include "LucidSQLiteShims.h"

int lucid_disable_checkpoint_on_close(struct sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
#else
    return SQLITE_ERROR;
#endif
}

/*
 * The floor of a row transform's cost in SQLite, with the conversion itself free (values handed back as
 * read): how much a rebuild whose rows pass through application code must cost beyond SQL's own
 * INSERT ... SELECT, whatever language that code is written in. Each mode copies the benchmark's
 * 1M-row `person` table (score int -> real) into a new table inside one transaction, then rolls back.
 *
 *   copy       INSERT INTO n SELECT ..., CAST(score AS REAL), ... FROM person   (the SQL rebuild's core)
 *   functions  INSERT INTO n SELECT v0(), ..., v7() FROM person WHERE t(rowid, c0, ..., c7)
 *              (lucidgen's typed path: one call with the old row, one call per new value)
 *   lookahead  per chunk of 50,000 rows: SELECT the chunk into memory (what a second core would convert
 *              ahead), then INSERT ... SELECT v0(), ..., v7() FROM person WHERE take(rowid)
 *              (the only way to hand rows to another thread before SQLite needs the new values)
 *   rowwise    SELECT every row, bind it to a prepared INSERT, step it (the rows-and-dictionaries shape)
 *
 *   gcc -O2 floor.c -o floor -lsqlite3 && ./floor STORE MODE
 * (run.sh builds the benchmark's store and runs every mode, interleaved, median of 5.)
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COLUMNS 8
#define CHUNK 50000

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Values of one chunk (or of one row, for `functions`), laid out by position. */
static struct {
    int kind[CHUNK * COLUMNS];
    long long number[CHUNK * COLUMNS];
    size_t offset[CHUNK * COLUMNS];
    long long rowid[CHUNK];
    char *bytes;
    size_t used, capacity;
    long current;
} batch;

static void keep(int index, int kind, long long number, const void *text, size_t count) {
    batch.kind[index] = kind;
    batch.number[index] = number;
    if (kind == SQLITE_TEXT) {
        if (batch.used + count > batch.capacity) {
            batch.capacity = (batch.used + count) * 2;
            batch.bytes = realloc(batch.bytes, batch.capacity);
        }
        memcpy(batch.bytes + batch.used, text, count);
        batch.offset[index] = batch.used;
        batch.used += count;
    }
}

static void keepValue(int index, sqlite3_value *value) {
    int kind = sqlite3_value_type(value);
    double real;
    switch (kind) {
    case SQLITE_INTEGER: keep(index, kind, sqlite3_value_int64(value), NULL, 0); break;
    case SQLITE_FLOAT: real = sqlite3_value_double(value); keep(index, kind, 0, NULL, 0); memcpy(&batch.number[index], &real, 8); break;
    case SQLITE_TEXT: keep(index, kind, sqlite3_value_bytes(value), sqlite3_value_text(value), sqlite3_value_bytes(value)); break;
    default: keep(index, SQLITE_NULL, 0, NULL, 0);
    }
}

static void transformFunction(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count;
    batch.current = 0;
    batch.used = 0;
    for (int column = 0; column < COLUMNS; column++) keepValue(column, arguments[column + 1]);
    sqlite3_result_int(context, 1);
}

static void takeFunction(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count;
    batch.current++;
    if (batch.rowid[batch.current] != sqlite3_value_int64(arguments[0])) {
        sqlite3_result_error(context, "rows out of step", -1);
        return;
    }
    sqlite3_result_int(context, 1);
}

static void valueFunction(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count; (void)arguments;
    int column = (int)(long)sqlite3_user_data(context);
    long index = batch.current * COLUMNS + column;
    double real;
    switch (batch.kind[index]) {
    case SQLITE_INTEGER:
        if (column == 4) sqlite3_result_double(context, (double)batch.number[index]);
        else sqlite3_result_int64(context, batch.number[index]);
        break;
    case SQLITE_FLOAT: memcpy(&real, &batch.number[index], 8); sqlite3_result_double(context, real); break;
    case SQLITE_TEXT: sqlite3_result_text64(context, batch.bytes + batch.offset[index], batch.number[index], SQLITE_STATIC, SQLITE_UTF8); break;
    default: sqlite3_result_null(context);
    }
}

static void check(sqlite3 *db, int code, int expected) {
    if (code != expected) {
        fprintf(stderr, "sqlite: %s\n", sqlite3_errmsg(db));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: floor STORE copy|functions|lookahead|rowwise\n");
        return 2;
    }
    const char *mode = argv[2];
    sqlite3 *db;
    check(db, sqlite3_open(argv[1], &db), SQLITE_OK);
    batch.capacity = 1 << 20;
    batch.bytes = malloc(batch.capacity);
    check(db, sqlite3_create_function_v2(db, "t", COLUMNS + 1, SQLITE_UTF8, NULL, transformFunction, NULL, NULL, NULL), SQLITE_OK);
    check(db, sqlite3_create_function_v2(db, "take", 1, SQLITE_UTF8, NULL, takeFunction, NULL, NULL, NULL), SQLITE_OK);
    for (long column = 0; column < COLUMNS; column++) {
        char name[8];
        snprintf(name, sizeof name, "v%ld", column);
        check(db, sqlite3_create_function_v2(db, name, 0, SQLITE_UTF8, (void *)column, valueFunction, NULL, NULL, NULL), SQLITE_OK);
    }
    check(db, sqlite3_exec(db, "BEGIN; CREATE TABLE n (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, age INTEGER NOT NULL, "
                               "score REAL NOT NULL, balance REAL NOT NULL, note TEXT, team_id INTEGER)", NULL, NULL, NULL), SQLITE_OK);
    const char *values = "v0(), v1(), v2(), v3(), v4(), v5(), v6(), v7()";
    char sql[512];
    sqlite3_stmt *read, *write;
    double start = now();
    if (!strcmp(mode, "copy")) {
        check(db, sqlite3_exec(db, "INSERT INTO n SELECT id, name, email, age, CAST(score AS REAL), balance, note, team_id FROM person", NULL, NULL, NULL), SQLITE_OK);
    } else if (!strcmp(mode, "functions")) {
        snprintf(sql, sizeof sql, "INSERT INTO n SELECT %s FROM person AS s WHERE t(s.rowid, s.id, s.name, s.email, s.age, s.score, s.balance, s.note, s.team_id)", values);
        check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    } else if (!strcmp(mode, "lookahead")) {
        check(db, sqlite3_prepare_v2(db, "SELECT rowid, id, name, email, age, score, balance, note, team_id FROM person WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid", -1, &read, NULL), SQLITE_OK);
        snprintf(sql, sizeof sql, "INSERT INTO n SELECT %s FROM person AS s WHERE s.rowid BETWEEN ?1 AND ?2 AND take(s.rowid)", values);
        check(db, sqlite3_prepare_v2(db, sql, -1, &write, NULL), SQLITE_OK);
        sqlite3_stmt *bounds;
        check(db, sqlite3_prepare_v2(db, "SELECT max(rowid) FROM person", -1, &bounds, NULL), SQLITE_OK);
        check(db, sqlite3_step(bounds), SQLITE_ROW);
        long long high = sqlite3_column_int64(bounds, 0);
        sqlite3_finalize(bounds);
        for (long long low = 1; low <= high; low += CHUNK) {
            long rows = 0;
            batch.used = 0;
            batch.current = -1;
            sqlite3_bind_int64(read, 1, low);
            sqlite3_bind_int64(read, 2, low + CHUNK - 1);
            while (sqlite3_step(read) == SQLITE_ROW) {
                batch.rowid[rows] = sqlite3_column_int64(read, 0);
                for (int column = 0; column < COLUMNS; column++) keepValue((int)(rows * COLUMNS + column), sqlite3_column_value(read, column + 1));
                rows++;
            }
            sqlite3_reset(read);
            sqlite3_bind_int64(write, 1, low);
            sqlite3_bind_int64(write, 2, low + CHUNK - 1);
            check(db, sqlite3_step(write), SQLITE_DONE);
            sqlite3_reset(write);
        }
    } else if (!strcmp(mode, "rowwise")) {
        check(db, sqlite3_prepare_v2(db, "SELECT id, name, email, age, score, balance, note, team_id FROM person ORDER BY rowid", -1, &read, NULL), SQLITE_OK);
        check(db, sqlite3_prepare_v2(db, "INSERT INTO n VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &write, NULL), SQLITE_OK);
        while (sqlite3_step(read) == SQLITE_ROW) {
            for (int column = 0; column < COLUMNS; column++) {
                sqlite3_value *value = sqlite3_column_value(read, column);
                if (column == 4 && sqlite3_value_type(value) == SQLITE_INTEGER) sqlite3_bind_double(write, column + 1, (double)sqlite3_value_int64(value));
                else sqlite3_bind_value(write, column + 1, value);
            }
            check(db, sqlite3_step(write), SQLITE_DONE);
            sqlite3_reset(write);
        }
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    double seconds = now() - start;
    sqlite3_stmt *count;
    check(db, sqlite3_prepare_v2(db, "SELECT count(*), total(score), total(length(name)) FROM n", -1, &count, NULL), SQLITE_OK);
    check(db, sqlite3_step(count), SQLITE_ROW);
    printf("%s %.1f ms (%lld rows, score total %.0f, name bytes %.0f)\n", mode, seconds * 1000, sqlite3_column_int64(count, 0),
           sqlite3_column_double(count, 1), sqlite3_column_double(count, 2));
    return 0;
}

/*
 * hp_log.h - messages from the runtime to stderr, each line prefixed
 * "hprof: " (and the rank once it is known).
 */
#ifndef HP_LOG_H
#define HP_LOG_H

void hp_log_set_rank(int rank);
void hp_log_set_verbose(int level);
int hp_log_verbose(void);
void hp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/*
 * hp_lambda.h - the name of a C++ lambda's operator() found in DWARF,
 * which gcc writes without a linkage name (lambda.c).
 */
#ifndef HP_LAMBDA_H
#define HP_LAMBDA_H

#include <elfutils/libdw.h>

/* "OUTER::{lambda(int)#1}::operator()(int) const" for scope, a concrete,
 * inlined or abstract DIE of a lambda's operator(), OUTER being
 * outer_name(the function that wrote the lambda) (malloc'ed, may be
 * NULL); NULL when scope is no lambda. */
char *hp_lambda_name(Dwarf_Die *scope, char *(*outer_name)(Dwarf_Die *scope));

#endif

/* units.h — quantities with units, as scenarios write them ("100Gbps").
 *
 * Each parser takes a string "<number><unit>" (spaces allowed between) and
 * returns the value in base units: bytes, bytes/s, seconds, flop/s. A bare
 * number is already in base units. On failure it returns -1 and writes a
 * message naming the accepted units into err. */
#ifndef HS_UNITS_H
#define HS_UNITS_H

#include <stddef.h>

typedef enum { HS_UNIT_BYTES, HS_UNIT_BANDWIDTH, HS_UNIT_TIME, HS_UNIT_FLOPS } hs_unit_kind;

int hs_parse_unit(const char *text, hs_unit_kind kind, double *out, char *err, size_t errlen);
const char *hs_unit_kind_name(hs_unit_kind kind);
/* Human-readable forms for summaries: "25.0 MiB", "12.5 GB/s", "3.20 ms". */
void hs_format_bytes(double bytes, char *buf, size_t len);
void hs_format_time(double seconds, char *buf, size_t len);
void hs_format_bandwidth(double bytes_per_s, char *buf, size_t len);

#endif

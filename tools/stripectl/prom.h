/* SPDX-License-Identifier: GPL-2.0 */
/* prom.c: status --prometheus, the arrays' metrics for node_exporter */
#ifndef STRIPECTL_PROM_H
#define STRIPECTL_PROM_H

int status_prometheus(const char *arg);

#endif /* STRIPECTL_PROM_H */

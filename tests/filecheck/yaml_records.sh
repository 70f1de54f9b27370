#!/bin/sh
# One line per record of an optimisation-record YAML file (records end with "..."), so that
# FileCheck can match a whole record with -DAG.
tr '\n' ' ' | sed 's/ \.\.\. */\n/g'

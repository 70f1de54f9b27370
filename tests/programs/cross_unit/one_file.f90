! main.f90 and units.f90 as one translation unit: the one-file verdicts.
include 'main.f90'
include 'units.f90'

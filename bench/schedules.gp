# gnuplot plots of the scheduling-policy study; run in its results directory after
# python3 -m bench.schedules analyze
# (which writes params.gp: F_<ds> = F*, t0_<ds>_<policy>_B<size> = first trace row's seconds).
#   <ds>-updates.png  relative gap (F - F*)/F* vs coordinate updates, B = 32 and B = 256
#   <ds>-time.png     the same vs solve seconds
#   chord-size.png    updates (and seconds) to 1e-3 relative gap vs chord size (paper's Fig. 4)
load "params.gp"
set datafile separator ","
set terminal pngcairo size 1300,500 font ",10"
# A NaN objective or a gap above the top edge is drawn at the top edge (ceiling): a line that
# jumps to the top of a panel is a run that diverged.
floor = 1e-10
ceiling = 5e3
clamp(g) = g > ceiling ? ceiling : (g > floor ? g : floor)
gap(f, F) = (f != f) ? ceiling : clamp((f - F) / abs(F))
policies = "dynamic random cyclic static"
set logscale y
set format y "10^{%L}"
set yrange [floor:1e4]

set grid
set key top right

datasets = ""
do for [ds in "synthetic debian"] { if (exists("F_".ds)) { datasets = datasets." ".ds } }
do for [ds in datasets] {
  F = value("F_".ds)
  set output ds."-updates.png"
  set multiplot layout 1,2 title ds.": relative objective gap vs coordinate updates (pipeline depth 1, 1 scheduler, 2 workers; top edge = NaN / diverged)"
  do for [b in "32 256"] {
    set title "chord size B = ".b
    set xlabel "updates"
    set ylabel "(F - F*) / F*"
    plot for [p in policies] ds."/".p."-B".b.".csv" every ::1 using 3:(gap($4, F)) \
      with linespoints pointsize 0.4 title p
  }
  unset multiplot
  set output ds."-time.png"
  set multiplot layout 1,2 title ds.": relative objective gap vs solve seconds (pipeline depth 1, 1 scheduler, 2 workers; top edge = NaN / diverged)"
  do for [b in "32 256"] {
    set title "chord size B = ".b
    set xlabel "seconds since the first check (loading excluded)"
    set ylabel "(F - F*) / F*"
    plot for [p in policies] ds."/".p."-B".b.".csv" every ::1 \
      using ($1 - value("t0_".ds."_".p."_B".b)):(gap($4, F)) \
      with linespoints pointsize 0.4 title p
  }
  unset multiplot
}

set datafile separator whitespace
set terminal pngcairo size 1300,900 font ",10"
set output "chord-size.png"
set logscale xy
set xrange [0.8:320]
set xtics (1, 8, 32, 128, 256)
set autoscale y
set format y "10^{%L}"
set key top left
set xlabel "chord size B (= parallelism, pipeline depth 1)"
n = words(datasets)
set multiplot layout 2,n title "to a 1e-3 relative gap: updates and solve seconds vs chord size (missing point = never, within the budget)"
do for [ds in datasets] {
  set title ds.": updates to 1e-3"
  set ylabel "updates"
  plot for [i=1:4] ds."/to-1e-3.dat" using 1:(column(2*i)) with linespoints title word(policies, i)
}
do for [ds in datasets] {
  set title ds.": solve seconds to 1e-3"
  set ylabel "seconds"
  plot for [i=1:4] ds."/to-1e-3.dat" using 1:(column(2*i+1)) with linespoints title word(policies, i)
}
unset multiplot

# Convergence plot of a dynamic job's trace.csv (lasso, logistic, svm; columns
# seconds,round,updates,objective,schedule): the relative gap to the best objective in the trace,
# (F - F_best) / |F_best|, on a log axis, against time (left) and against coordinate updates
# (right). The row that reached the best objective has no gap and is not drawn.
#   gnuplot -e "trace='out/quickstart/trace.csv'; output='out/quickstart/trace.png'" deploy/plot-trace.gp
if (!exists("trace")) trace = 'trace.csv'
if (!exists("output")) output = 'trace.png'
set datafile separator ','
stats trace using 4 skip 1 nooutput
best = STATS_min
scale = abs(best) > 0 ? abs(best) : 1
gap(f) = (f - best) / scale > 0 ? (f - best) / scale : NaN
set terminal pngcairo size 1100,450
set output output
set multiplot layout 1,2 title sprintf("relative gap to the best objective in the trace, F_{best} = %.10g", best)
set key off
set logscale y
set format y '10^{%L}'
set grid
set ylabel '(F - F_{best}) / |F_{best}|'
set xlabel 'seconds'
plot trace using 1:(gap($4)) skip 1 with linespoints pointtype 7 pointsize 0.5
set xlabel 'coordinate updates'
set format x '%.0s%c'
plot trace using 3:(gap($4)) skip 1 with linespoints pointtype 7 pointsize 0.5
unset multiplot

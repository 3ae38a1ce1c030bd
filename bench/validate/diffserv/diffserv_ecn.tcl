# Study 4 (spec/4-diffserv-ecn.md) in ns-2.35's DiffServ module (Nortel dsRED).
#
#   ns diffserv_ecn.tcl <sim 1|2> <ecn none|af|afbe> <bucket depth B> <seed> [duration s] [qlimit]
#
# Prints one JSON line: per-flow wire-level goodput (kb/s), the edge queue's per-code-point
# counters (arrivals, drops = forced+overflow, early drops) and CE marks seen on the bottleneck.
#
# Topology (spec 4 §3): one source and one sink node per flow; access links 10 Mb/s 0.1 ms;
# ingress -> egress 5 Mb/s 1 ms with Queue/dsRED/edge (token-bucket policer per AF flow, three
# physical queues EF/AF/BE under WRR 1:4:5); egress -> ingress 5 Mb/s 1 ms DropTail 100.
#
# Differences from the paper's patched simulator that stock ns-2.35 forces on us:
# - one queue limit for all physical queues of a dsRED link (redq_[i].qlim = limit()); we use
#   100 (the AF RIO size). BE (5 x 20-segment windows) and EF never reach it.
# - ECN in stock dsredq.cc: an ECT packet is queued first and then marked CE when RED chooses it
#   (probabilistically, p_a) and ALSO whenever avg > max_th (never dropped except on overflow);
#   its precedence is not lowered. The paper's scheme (deterministic mark + OUT->IN, forced
#   drop above max_th) is not available without patching ns-2.
# - code points: EF 20 (not 46: dsred.h MAX_CP is too small for 46 and the counters overflow
#   into the PHB table), AF IN 10, AF OUT 11, BE 0.
# - RED's region test is avg > min_th / avg <= max_th (packetsim: >= / <).

set sim      [lindex $argv 0]
set ecnmode  [lindex $argv 1]
set depth    [lindex $argv 2]
set seed     [lindex $argv 3]
set duration [expr {[llength $argv] > 4 ? [lindex $argv 4] : 100.0}]
set qlimit   [expr {[llength $argv] > 5 ? [lindex $argv 5] : 100}]

if {$sim == 1} { set n_af 3; set cir 500000 } else { set n_af 6; set cir 250000 }
set n_be 5
set af_ecn [expr {$ecnmode != "none"}]
set be_ecn [expr {$ecnmode == "afbe"}]

set ns [new Simulator]
global defaultRNG
$defaultRNG seed [expr {$seed + 1}]
set startrng [new RNG]
$startrng seed [expr {$seed + 1}]

# TCP (spec 4 §3 INFERRED values; ns-2.35 defaults otherwise: Reno, bugFix_, maxburst_ 0)
Agent/TCP set window_ 20
Agent/TCP set windowInit_ 1
Agent/TCP set packetSize_ 1000
Agent/TCP set tcpTick_ 0.1
Agent/TCP set minrto_ 0.2
Agent/TCP set rtxcur_init_ 3.0

set ing [$ns node]
set egr [$ns node]
$ns simplex-link $ing $egr 5Mb 1ms dsRED/edge
$ns simplex-link $egr $ing 5Mb 1ms DropTail
$ns queue-limit $ing $egr $qlimit
$ns queue-limit $egr $ing 100
set q [[$ns link $ing $egr] queue]
$q link [[$ns link $ing $egr] link]
$q meanPktSize 1040
$q set numQueues_ 3
$q setNumPrec 2
$q setSchedularMode WRR
$q addQueueWeights 0 1
$q addQueueWeights 1 4
$q addQueueWeights 2 5
# EF: DropTail (DROP mode: th_min is the limit)
$q setMREDMode DROP 0
$q configQ 0 0 50 50 1.0
$q configQ 0 1 50 50 1.0
# AF: RIO-C, IN = prec 0 (avg over IN), OUT = prec 1 (avg over IN+OUT)
$q setMREDMode RIO-C 1
$q configQ 1 0 45 90 0.02 0.002
$q configQ 1 1 20 40 0.04 0.002
# BE: RED (prec 0 only)
$q setMREDMode RIO-C 2
$q configQ 2 0 50 180 0.05 0.002
$q configQ 2 1 50 180 0.05 0.002
$q addPHBEntry 20 0 0
$q addPHBEntry 10 1 0
$q addPHBEntry 11 1 1
$q addPHBEntry 0 2 0
$q addPolicerEntry Null 20
$q addPolicerEntry TokenBucket 10 11
$q addPolicerEntry Null 0
if {$af_ecn || $be_ecn} { $q set ecn_ 1 }

proc mkpair {} {
    global ns ing egr
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $ing 10Mb 0.1ms DropTail
    $ns duplex-link $egr $d 10Mb 0.1ms DropTail
    $ns queue-limit $s $ing 1000
    $ns queue-limit $egr $d 1000
    return [list $s $d]
}

set tcps {}
for {set i 1} {$i <= 2} {incr i} {
    lassign [mkpair] s d
    $q addPolicyEntry [$s id] [$d id] Null 20
    set u [new Agent/UDP]
    $u set fid_ $i
    $ns attach-agent $s $u
    set n [new Agent/Null]
    $ns attach-agent $d $n
    $ns connect $u $n
    set cbr [new Application/Traffic/CBR]
    $cbr set packetSize_ 1000
    $cbr set rate_ 200kb
    $cbr attach-agent $u
    $ns at 0.0 "$cbr start"
}
proc mktcp {fid ecn} {
    global ns startrng
    set t [new Agent/TCP/Reno]
    $t set fid_ $fid
    $t set ecn_ $ecn
    set k [new Agent/TCPSink]
    set ftp [new Application/FTP]
    return [list $t $k $ftp]
}
for {set i 1} {$i <= $n_af} {incr i} {
    lassign [mkpair] s d
    $q addPolicyEntry [$s id] [$d id] TokenBucket 10 $cir $depth
    lassign [mktcp [expr {10 + $i}] $af_ecn] t k ftp
    $ns attach-agent $s $t
    $ns attach-agent $d $k
    $ns connect $t $k
    $ftp attach-agent $t
    $ns at [$startrng uniform 0 1] "$ftp start"
    lappend tcps [list af$i $t]
}
for {set i 1} {$i <= $n_be} {incr i} {
    lassign [mkpair] s d
    $q addPolicyEntry [$s id] [$d id] Null 0
    lassign [mktcp [expr {20 + $i}] $be_ecn] t k ftp
    $ns attach-agent $s $t
    $ns attach-agent $d $k
    $ns connect $t $k
    $ftp attach-agent $t
    $ns at [$startrng uniform 0 1] "$ftp start"
    lappend tcps [list be$i $t]
}

# CE marks: count dequeues from the bottleneck queue carrying CE, per flow id.
array set ce {}
set tracef [open "|awk {\$1==\"-\" && \$7 ~ /E/ {c\[\$8\]++} END {for (k in c) printf \"%s %d\\n\", k, c\[k\]}} > /tmp/ns2_ds_ce.$seed.[pid]" w]
$ns trace-queue $ing $egr $tracef

proc finish {} {
    global ns q tcps duration tracef seed
    set parts {}
    foreach ft $tcps {
        lassign $ft name t
        set acked [expr {[$t set ack_] + 1}]
        lappend parts "\"${name}_kbps\": [expr {$acked * 1040 * 8.0 / $duration / 1000.0}]"
        lappend parts "\"${name}_rexmit\": [$t set nrexmitpack_]"
    }
    foreach cp {10 11 0 20} {
        foreach st {pkts drops edrops} {
            lappend parts "\"cp${cp}_$st\": [expr {int([$q getStat $st $cp])}]"
        }
    }
    $ns flush-trace
    close $tracef
    set f [open "/tmp/ns2_ds_ce.$seed.[pid]" r]
    set ce_af 0; set ce_be 0
    while {[gets $f line] >= 0} {
        lassign $line fid c
        if {$fid >= 11 && $fid < 20} { incr ce_af $c } elseif {$fid >= 21} { incr ce_be $c }
    }
    close $f
    file delete "/tmp/ns2_ds_ce.$seed.[pid]"
    lappend parts "\"ce_af\": $ce_af" "\"ce_be\": $ce_be"
    puts "\{[join $parts {, }]\}"
    exit 0
}
$ns at $duration "finish"
$ns run

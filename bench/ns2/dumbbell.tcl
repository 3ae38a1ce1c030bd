# packetsim benchmark peer: dumbbell with N long-lived TCP NewReno flows, for ns-2.35.
#
#   ns bench/ns2/dumbbell.tcl N
#
# Prints one JSON line on stdout. No trace files are written: the counters are read from
# TCPSink's bytes_ and from QueueMonitors (no integrators, no trace) on the receivers' uplinks.
# See bench/README.md for the workload and the parameter mapping.

if {$argc < 1} {
    puts stderr "usage: ns dumbbell.tcl N"
    exit 2
}
set N [lindex $argv 0]
if {![string is integer -strict $N] || $N < 1} {
    puts stderr "N must be a positive integer, got '$N'"
    exit 2
}
set SIM_END 60.0
set MSS 1460 ;# payload bytes; ns-2 adds tcpip_base_hdr_size_ (40) -> 1500-byte packets
set HDR 40
set PKT [expr {$MSS + $HDR}]

# ---- TCP parameters (set explicitly, whatever the defaults are) ----
Agent/TCP set packetSize_ $MSS
Agent/TCP set tcpip_base_hdr_size_ $HDR
Agent/TCP set window_ 10000          ;# receiver's advertised window, packets: never limits
Agent/TCP set maxcwnd_ 0             ;# no cap on cwnd besides window_
Agent/TCP set windowInit_ 2          ;# initial cwnd, segments
Agent/TCP set windowInitOption_ 1    ;# use windowInit_ as is (not RFC 3390's formula)
Agent/TCP set syn_ true              ;# model the SYN (a 40-byte first packet), like ns-3
Agent/TCP set delay_growth_ true     ;# initial window starts after the SYN is acked
Agent/TCP set minrto_ 0.2            ;# minimum RTO 200 ms
Agent/TCP set rtxcur_init_ 1.0       ;# initial RTO 1 s
Agent/TCP set maxrto_ 60             ;# RTO upper bound 60 s
Agent/TCP set tcpTick_ 0.001         ;# clock granularity 1 ms
Agent/TCP set timestamps_ false      ;# no timestamps
Agent/TCP set ts_option_size_ 0
Agent/TCP set numdupacks_ 3          ;# fast retransmit after 3 duplicate ACKs
Agent/TCP set singledup_ 0           ;# no limited transmit (RFC 3042)
Agent/TCP set maxburst_ 0            ;# no burst limit
Agent/TCP set overhead_ 0            ;# no random send jitter
Agent/TCP set ecn_ 0
Agent/TCP set windowOption_ 1        ;# standard congestion avoidance (+1/cwnd per ACK)
Agent/TCP/Newreno set newreno_changes1_ 1          ;# RFC 2582/3782/6582 NewReno
Agent/TCP/Newreno set partial_window_deflation_ 1  ;# deflate by the newly acked data
Agent/TCPSink set ts_echo_rfc1323_ false
# Agent/TCPSink (not TCPSink/DelAck, not Sack1): cumulative ACK for every segment, no SACK.

# ---- topology ----
set ns [new Simulator]

set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 100Mb 10ms DropTail
$ns queue-limit $r0 $r1 100
$ns queue-limit $r1 $r0 100

for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 1Gb 1ms DropTail
    $ns queue-limit $s($i) $r0 1000
    $ns queue-limit $r0 $s($i) 1000
    $ns duplex-link $r1 $d($i) 1Gb 1ms DropTail
    $ns queue-limit $r1 $d($i) 1000
    $ns queue-limit $d($i) $r1 1000
}

# ---- flows ----
for {set i 0} {$i < $N} {incr i} {
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    # The sink sends exactly one ACK per segment it receives (no delayed ACK), at the same
    # instant, onto the d_i -> r1 link: that link's arrival count is the number of segments
    # delivered to the receiving TCP.
    set qmon($i) [new QueueMonitor]
    [$ns link $d($i) $r1] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] \
        [new SnoopQueue/Drop] $qmon($i)
    $ns at [expr {$i * 1.0 / $N}] "$ftp($i) start"
}

proc finish {} {
    global N sink qmon PKT MSS SIM_END
    set data_pkts 0
    set inorder_pkts 0
    for {set i 0} {$i < $N} {incr i} {
        # bytes_ = in-order bytes handed up, counted as whole packets (1500 B each) plus
        # 40 B for the SYN once it has arrived.
        set b [$sink($i) set bytes_]
        set syn [expr {($b % $PKT) != 0 ? 1 : 0}]
        set inorder_pkts [expr {$inorder_pkts + $b / $PKT}]
        set acks [$qmon($i) set parrivals_]
        set data_pkts [expr {$data_pkts + $acks - $syn}]
    }
    set goodput [expr {double($inorder_pkts) * $MSS * 8.0 / $SIM_END}]
    puts [format {{"sim":"ns-2.35","workload":"dumbbell-%d","flows":%d,"data_packets_delivered":%d,"goodput_bps":%.0f,"inorder_segments":%d}} \
        $N $N $data_pkts $goodput $inorder_pkts]
    flush stdout
    exit 0
}

$ns at $SIM_END "finish"
$ns run

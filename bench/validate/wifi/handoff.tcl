# Wired-cum-wireless Mobile IP handoff in ns-2.35 (issue 34 item 4), after the layout of
# ns-2's own example (tcl/ex/wireless3.tcl: wired nodes, a home agent and a foreign agent as
# base stations, a mobile host in the home agent's domain).
#
#   ns handoff.tcl <speed_m_s> <seed> <trace_file> [legs] [adhoc_routing]
#
#   W0 (TCP source, 0.0.0) --10Mb 2ms-- W1 (0.1.0) --10Mb 2ms-- HA (1.0.0), BS at (100,100)
#                                                  \-10Mb 2ms-- FA (2.0.0), BS at (400,100)
#   MH (1.0.1): moves along y = 100 from x = 50 to x = 450 and back, `legs` times (default 4),
#   at <speed>, starting at t = 5 s.
#
# Both base stations share one 802.11b channel (ns-2 has one channel per interface); they are
# 300 m apart, so with ns-2's default radio (TwoRayGround, 250 m receive, 550 m carrier sense)
# the cells overlap between x = 150 and x = 350 and the base stations hear each other.
# Handoff is ns-2's Mobile IP: each base station advertises every 1 s (MIPBSAgent's beacon_),
# the mobile registers with the agent it hears (its home agent when at home). An FTP/TCP Reno
# flow (1000-byte segments, window 32) runs from W0 to MH over the whole motion.
# The script writes ns-2's trace (old wireless format, agent/router/MAC levels on) and prints
# one JSON line with the TCP counters; handoff.py computes outage, losses and retries from
# the trace.
if {$argc < 3} {
    puts stderr "usage: ns handoff.tcl <speed_m_s> <seed> <trace_file> \[legs\] \[adhoc_routing\]"
    exit 2
}
set speed  [lindex $argv 0]
set seed   [lindex $argv 1]
set tracef [lindex $argv 2]
set legs   [expr {$argc > 3 ? [lindex $argv 3] : 4}]
set rp     [expr {$argc > 4 ? [lindex $argv 4] : "DSDV"}]
proc need {cond what got} {
    if {!$cond} {
        puts stderr "handoff.tcl: $what, got \"$got\""
        exit 2
    }
}
need [expr {[string is double -strict $speed] && $speed > 0}] "speed_m_s must be a number > 0" $speed
need [expr {[string is integer -strict $seed] && $seed >= 0}] "seed must be a whole number >= 0" $seed
need [expr {[string is integer -strict $legs] && $legs >= 1}] "legs must be a whole number >= 1" $legs
need [expr {$rp in {DSDV AODV DSR TORA}}] "adhoc_routing must be DSDV (ns-2's example), AODV, DSR or TORA" $rp

# --- 802.11b DSSS, stated explicitly (same as saturation.tcl) ---
Mac/802_11 set SlotTime_          0.000020
Mac/802_11 set SIFS_              0.000010
Mac/802_11 set PreambleLength_    144
Mac/802_11 set PLCPHeaderLength_  48
Mac/802_11 set PLCPDataRate_      1.0e6
Mac/802_11 set dataRate_          11.0e6
Mac/802_11 set basicRate_         1.0e6
Mac/802_11 set RTSThreshold_      3000
Mac/802_11 set CWMin_             31
Mac/802_11 set CWMax_             1023
Mac/802_11 set ShortRetryLimit_   7
Mac/802_11 set LongRetryLimit_    4

global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
$ns node-config -addressType hierarchical
AddrParams set domain_num_ 3
AddrParams set cluster_num_ {2 1 1}
AddrParams set nodes_num_ {1 1 2 1}

set tf [open $tracef w]
$ns trace-all $tf
set topo [new Topography]
$topo load_flatgrid 500 200
create-god 3
set chan [new Channel/WirelessChannel]

set W0 [$ns node 0.0.0]
set W1 [$ns node 0.1.0]

$ns node-config -mobileIP ON -adhocRouting $rp -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \
    -topoInstance $topo -wiredRouting ON -agentTrace ON -routerTrace ON -macTrace ON \
    -movementTrace OFF
set HA [$ns node 1.0.0]
set FA [$ns node 2.0.0]
$HA random-motion 0
$FA random-motion 0
$HA set X_ 100.0; $HA set Y_ 100.0; $HA set Z_ 0.0
$FA set X_ 400.0; $FA set Y_ 100.0; $FA set Z_ 0.0

$ns node-config -wiredRouting OFF
set MH [$ns node 1.0.1]
$MH random-motion 0
[$MH set regagent_] set home_agent_ [AddrParams addr2id [$HA node-addr]]
$MH set X_ 50.0; $MH set Y_ 100.0; $MH set Z_ 0.0

$ns duplex-link $W0 $W1 10Mb 2ms DropTail
$ns duplex-link $W1 $HA 10Mb 2ms DropTail
$ns duplex-link $W1 $FA 10Mb 2ms DropTail

set tcp [new Agent/TCP/Reno]
$tcp set packetSize_ 1000
$tcp set window_ 32
$ns attach-agent $W0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $MH $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

set start 5.0
set leg [expr {400.0 / $speed}]
for {set k 0} {$k < $legs} {incr k} {
    set x [expr {$k % 2 == 0 ? 450.0 : 50.0}]
    $ns at [expr {$start + $k * $leg}] "$MH setdest $x 100.0 $speed"
}
set stop [expr {$start + $legs * $leg + 5.0}]
$ns at 2.0 "$ftp start"

proc finish {} {
    global ns tf tcp stop speed seed legs rp HA FA MH
    $ns flush-trace
    close $tf
    set mac_ha [[$HA set mac_(0)] id]
    set mac_fa [[$FA set mac_(0)] id]
    set mac_mh [[$MH set mac_(0)] id]
    puts [format {{"speed":%g,"seed":%d,"legs":%d,"routing":"%s","ftp_start":2.0,"stop":%g,"ack":%d,"packet_size":1000,"nrexmitpack":%d,"nrexmit":%d,"mac_ha":%d,"mac_fa":%d,"mac_mh":%d,"node_mh":%d}} \
        $speed $seed $legs $rp $stop [$tcp set ack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_] \
        $mac_ha $mac_fa $mac_mh [$MH id]]
    exit 0
}
$ns at $stop "finish"
$ns run

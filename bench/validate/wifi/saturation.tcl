# Bianchi-style saturation on one 802.11b channel in ns-2.35 (issue 34 item 4).
#
#   ns saturation.tcl <n_stations> <seed> [payload_bytes] [measure_s] [trace_file]
#
# n stations on a circle of radius 10 m around one access point (node 0), so every station
# hears every other (carrier sense) and two frames reach the AP at the same power (no capture:
# WirelessPhy's CPThresh_ 10 needs a 10x power ratio). Each station sends UDP/CBR to the AP
# at three times its fair share of the channel, so its interface queue never empties
# (saturation). No routing protocol traffic (DumbAgent); ARP runs once per station, alone on
# the channel, before the saturating traffic starts. Prints one JSON line: aggregate UDP payload goodput at the AP over
# [warmup, warmup + measure_s], and the MAC counters of the run.
if {$argc < 2} {
    puts stderr "usage: ns saturation.tcl <n_stations> <seed> \[payload_bytes\] \[measure_s\] \[trace_file\]"
    exit 2
}
set n       [lindex $argv 0]
set seed    [lindex $argv 1]
set payload [expr {$argc > 2 ? [lindex $argv 2] : 1000}]
set measure [expr {$argc > 3 ? [lindex $argv 3] : 20.0}]
set tracef  [expr {$argc > 4 ? [lindex $argv 4] : ""}]
set warmup  5.0
proc need {cond what got} {
    if {!$cond} {
        puts stderr "saturation.tcl: $what, got \"$got\""
        exit 2
    }
}
need [expr {[string is integer -strict $n] && $n >= 1}] "n_stations must be a whole number >= 1" $n
need [expr {[string is integer -strict $seed] && $seed >= 0}] "seed must be a whole number >= 0" $seed
need [expr {[string is integer -strict $payload] && $payload >= 1}] "payload_bytes must be a whole number >= 1" $payload
need [expr {[string is double -strict $measure] && $measure > 0}] "measure_s must be a number > 0" $measure

# --- 802.11b DSSS, stated explicitly (ns-2.35 Mac/802_11 and its PHY MIB) ---
Mac/802_11 set SlotTime_          0.000020 ;# 20 us
Mac/802_11 set SIFS_              0.000010 ;# 10 us (DIFS = SIFS + 2 slots = 50 us)
Mac/802_11 set PreambleLength_    144      ;# long preamble, bits at PLCPDataRate_
Mac/802_11 set PLCPHeaderLength_  48       ;# bits -> 192 us PLCP overhead at 1 Mb/s
Mac/802_11 set PLCPDataRate_      1.0e6
Mac/802_11 set dataRate_          11.0e6   ;# DATA frames
Mac/802_11 set basicRate_         1.0e6    ;# ACK (and RTS/CTS) frames
Mac/802_11 set RTSThreshold_      3000     ;# above every frame here: RTS/CTS off
Mac/802_11 set CWMin_             31
Mac/802_11 set CWMax_             1023
Mac/802_11 set ShortRetryLimit_   7
Mac/802_11 set LongRetryLimit_    4
# ns-2 defaults for the radio (914 MHz Lucent WaveLAN: 250 m receive, 550 m carrier sense
# with TwoRayGround); every distance here is at most 20 m.
Phy/WirelessPhy set freq_ 914e+6
Phy/WirelessPhy set bandwidth_ 11.0e6

global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
$ns use-newtrace
# ns-2's wireless nodes need a trace object; without a trace file argument it goes to
# /dev/null with every trace level off.
set tf [open [expr {$tracef ne "" ? $tracef : "/dev/null"}] w]
$ns trace-all $tf
set topo [new Topography]
$topo load_flatgrid 200 200
create-god [expr {$n + 1}]
set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting DumbAgent -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -topoInstance $topo \
    -channel $chan -agentTrace [expr {$tracef ne "" ? "ON" : "OFF"}] -routerTrace OFF \
    -macTrace [expr {$tracef ne "" ? "ON" : "OFF"}] -movementTrace OFF

set pi 3.14159265358979
set ap [$ns node]
$ap set X_ 100.0; $ap set Y_ 100.0; $ap set Z_ 0.0
$ap random-motion 0

# Fair share of ~6 Mb/s of goodput, times three, at least 1 packet per 10 ms.
set rate [expr {3.0 * 6.0e6 / $n}]
set sinks {}
set rng [new RNG]
$rng seed [expr {$seed + 1000}]
for {set i 0} {$i < $n} {incr i} {
    set sta [$ns node]
    set a [expr {2.0 * $pi * $i / $n}]
    $sta set X_ [expr {100.0 + 10.0 * cos($a)}]
    $sta set Y_ [expr {100.0 + 10.0 * sin($a)}]
    $sta set Z_ 0.0
    $sta random-motion 0
    set udp [new Agent/UDP]
    $udp set packetSize_ [expr {$payload + 100}]
    $ns attach-agent $sta $udp
    set sink [new Agent/LossMonitor]
    $ns attach-agent $ap $sink
    $ns connect $udp $sink
    set cbr [new Application/Traffic/CBR]
    $cbr set packetSize_ $payload
    $cbr set rate_ $rate
    $cbr set random_ 0
    $cbr attach-agent $udp
    # ARP first, one station at a time on an idle channel: one packet each, 20 ms apart.
    # (ns-2's ARP broadcasts are never retried by the MAC; on a saturated channel they
    # collide, and a station whose ARP never resolves broadcasts a new request for every
    # packet, at 1 Mb/s: at n = 50 that took half the frames.) Then the saturating CBRs
    # start spread over [2, 3) s; the measurement starts at 5 s.
    set arp [new Application/Traffic/CBR]
    $arp set packetSize_ $payload
    $arp set maxpkts_ 1
    $arp attach-agent $udp
    $ns at [expr {0.05 + 0.02 * $i}] "$arp start"
    $ns at [expr {2.0 + [$rng uniform 0 1]}] "$cbr start"
    lappend sinks $sink
}

proc total_bytes {} {
    global sinks
    set b 0
    foreach s $sinks { incr b [$s set bytes_] }
    return $b
}
set b0 0
proc mark_start {} { global b0; set b0 [total_bytes] }
proc finish {} {
    global b0 measure n seed payload ns tf
    set b1 [total_bytes]
    set tput [expr {($b1 - $b0) * 8.0 / $measure}]
    puts [format {{"n":%d,"seed":%d,"payload":%d,"measure_s":%g,"bytes":%d,"throughput_bps":%.1f}} \
        $n $seed $payload $measure [expr {$b1 - $b0}] $tput]
    $ns flush-trace
    close $tf
    exit 0
}
$ns at $warmup "mark_start"
$ns at [expr {$warmup + $measure}] "finish"
$ns run

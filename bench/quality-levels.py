#!/usr/bin/python3
"""What a target would give on the bench corpus, from quality-curves' output:

    quality-levels.py CURVES.tsv [QUALITY]

(CURVES.tsv: quality-curves' lines, each prefixed by the corpus and a tab.) Each
photo's score and bytes are read between the qualities measured (linearly, bytes
in log); for targets from 20 to 26.25 dB it prints the total bytes against fixed
QUALITY (85), the worst and the median score when each file takes the lowest
quality that meets the target."""
import collections
import math
import statistics as st
import sys

def load(fn):
    d=collections.defaultdict(dict)
    for l in open(fn):
        x=l.rstrip('\n').split('\t')
        if len(x)<8: continue
        c,p,f,q,b,s,ms,mb=x
        d[p][int(q)]=(int(b),float(s))
    # interpolate to integer q
    out={}
    for p,v in d.items():
        qs=sorted(v); full={}
        for a,b2 in zip(qs,qs[1:]):
            for q in range(a,b2+1):
                t=(q-a)/(b2-a)
                full[q]=(math.exp((1-t)*math.log(v[a][0])+t*math.log(v[b2][0])),(1-t)*v[a][1]+t*v[b2][1])
        out[p]=full
    return out
def at(d,q): return [d[p][q] for p in sorted(d)]
def choose(d,T):
    r=[]
    for p in sorted(d):
        qs=sorted(d[p]); pick=None
        for q in qs:
            if d[p][q][1]>=T: pick=q;break
        if pick is None: pick=qs[-1]
        r.append((pick,)+d[p][pick])
    return r
fn=sys.argv[1]; d=load(fn)

qq=int(sys.argv[2]) if len(sys.argv)>2 else 85
q85=at(d,qq)
tb=sum(b for b,s in q85); ws=min(s for b,s in q85); ms=st.median(s for b,s in q85)
print(f'{fn}: q{qq} total {tb/1000:.0f} KB worst {ws:.2f} median {ms:.2f}')
for T in [x/4 for x in range(80,106)]:
    r=choose(d,T)
    b=sum(x[1] for x in r)
    print(f'  T {T:5.2f}: bytes {b/tb:.3f}x  worst {min(x[2] for x in r):.2f} median {st.median(x[2] for x in r):.2f} (median-q85 {st.median(x[2] for x in r)-ms:+.2f}) q med {st.median(x[0] for x in r)}')

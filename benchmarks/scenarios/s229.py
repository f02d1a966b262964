# DQN on CartPole following the PyTorch "Reinforcement Learning (DQN)" tutorial of 2019: the state
# is the difference of two rendered screens (1x40x90), 3-layer conv net with BatchNorm, replay
# memory 10000, BATCH_SIZE 128, GAMMA 0.999, EPS_START 0.9, EPS_END 0.05, EPS_DECAY 200,
# TARGET_UPDATE 10, RMSprop, Huber loss. CartPole physics written out (no gym needed).
import csv
import math
import random
from collections import namedtuple, deque
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
torch.manual_seed(0)
torch.set_num_threads(1)

class CartPole:
    g, mc, mp, l, fmag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    def reset(self):
        self.s = [random.uniform(-0.05, 0.05) for _ in range(4)]
        return self.s
    def step(self, a):
        x, xd, th, thd = self.s
        f = self.fmag if a == 1 else -self.fmag
        ct, st = math.cos(th), math.sin(th)
        tmp = (f + self.mp * self.l * thd ** 2 * st) / (self.mc + self.mp)
        tha = (self.g * st - ct * tmp) / (self.l * (4.0 / 3.0 - self.mp * ct ** 2 / (self.mc + self.mp)))
        xa = tmp - self.mp * self.l * tha * ct / (self.mc + self.mp)
        x, xd, th, thd = x + self.tau * xd, xd + self.tau * xa, th + self.tau * thd, thd + self.tau * tha
        self.s = [x, xd, th, thd]
        done = abs(x) > 2.4 or abs(th) > 12 * 2 * math.pi / 360
        return self.s, 1.0, done
    def render(self):
        # 40x90 screen around the cart: cart as a box, pole as a line of pixels
        img = torch.zeros(1, 40, 90)
        x, _, th, _ = self.s
        cx = int(45 + x / 4.8 * 90)
        img[0, 30:34, max(0, cx - 5):min(90, cx + 5)] = 1.0
        for k in range(20):
            px = int(cx + k * math.sin(th)); py = int(30 - k * math.cos(th))
            if 0 <= px < 90 and 0 <= py < 40:
                img[0, py, px] = 1.0
        return img.unsqueeze(0)

class DQN(nn.Module):
    def __init__(self, h, w, outputs):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, 2); self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 5, 2); self.bn2 = nn.BatchNorm2d(32)
        self.conv3 = nn.Conv2d(32, 32, 5, 2); self.bn3 = nn.BatchNorm2d(32)
        cs = lambda s: (s - 5) // 2 + 1
        self.head = nn.Linear(cs(cs(cs(w))) * cs(cs(cs(h))) * 32, outputs)
    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x))); x = F.relu(self.bn2(self.conv2(x))); x = F.relu(self.bn3(self.conv3(x)))
        return self.head(x.view(x.size(0), -1))

Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))
BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TARGET_UPDATE = 128, 0.999, 0.9, 0.05, 200, 10
policy_net, target_net = DQN(40, 90, 2), DQN(40, 90, 2)
target_net.load_state_dict(policy_net.state_dict()); target_net.eval()
optimizer = torch.optim.RMSprop(policy_net.parameters())
memory = deque(maxlen=10000)
steps_done = 0

def select_action(state):
    global steps_done
    eps = EPS_END + (EPS_START - EPS_END) * math.exp(-1.0 * steps_done / EPS_DECAY)
    steps_done += 1
    if random.random() > eps:
        with torch.no_grad():
            return policy_net(state).max(1)[1].view(1, 1)
    return torch.tensor([[random.randrange(2)]])

def optimize_model():
    if len(memory) < BATCH_SIZE:
        return None
    batch = Transition(*zip(*random.sample(memory, BATCH_SIZE)))
    mask = torch.tensor([s is not None for s in batch.next_state])
    non_final = torch.cat([s for s in batch.next_state if s is not None])
    sb, ab, rb = torch.cat(batch.state), torch.cat(batch.action), torch.cat(batch.reward)
    q = policy_net(sb).gather(1, ab)
    nv = torch.zeros(BATCH_SIZE)
    nv[mask] = target_net(non_final).max(1)[0].detach()
    loss = F.smooth_l1_loss(q, (nv * GAMMA + rb).unsqueeze(1))
    optimizer.zero_grad(); loss.backward()
    for p in policy_net.parameters():
        p.grad.data.clamp_(-1, 1)
    optimizer.step()
    return loss.item()

env = CartPole()
durations = []
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["episode", "duration", "avg_duration", "max_duration", "loss", "epsilon"])
    for i_episode in range(60):
        env.reset()
        last, cur = env.render(), env.render()
        state = cur - last
        losses = []
        for t in range(1, 500):
            action = select_action(state)
            _, reward, done = env.step(action.item())
            last, cur = cur, env.render()
            next_state = None if done else cur - last
            memory.append(Transition(state, action, next_state, torch.tensor([reward])))
            state = next_state
            l = optimize_model()
            if l is not None:
                losses.append(l)
            if done:
                break
        durations.append(t)
        if i_episode % TARGET_UPDATE == 0:
            target_net.load_state_dict(policy_net.state_dict())
        avg = sum(durations) / len(durations)
        eps = EPS_END + (EPS_START - EPS_END) * math.exp(-1.0 * steps_done / EPS_DECAY)
        ml = f"{sum(losses) / len(losses):.5f}" if losses else ""
        wr.writerow([i_episode, t, f"{avg:.2f}", max(durations), ml, f"{eps:.3f}"])
        fh.flush()
        if i_episode % 5 == 0:
            print(f"{i_episode};{max(durations)};{t};{avg}  loss {ml} eps {eps:.3f}")
print("Complete")

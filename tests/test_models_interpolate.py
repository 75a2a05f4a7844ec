"""Weight interpolation between a model and its fine-tune: the ends read as the two nets,
the middle is the mean of their folded weights."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from models.interpolate import folded_weights, interpolate  # noqa: E402  (needs torch)
from models.net import SquareNet  # noqa: E402


def _trained_net(
    seed: int, views: bool = False, fine_convs: int = 1, second_stride: int = 1
) -> SquareNet:
    """A net with random weights and BatchNorm statistics, as training leaves them."""
    torch.manual_seed(seed)
    net = SquareNet(views=views, fine_convs=fine_convs, second_stride=second_stride)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.normal_(0.0, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.2)
    return net.eval()


def _read(net: SquareNet, crops: torch.Tensor) -> list[torch.Tensor]:
    with torch.no_grad():
        return list(net.eval()(crops))


@pytest.mark.parametrize(("fine_convs", "second_stride"), [(1, 1), (2, 1), (1, 2)])
def test_the_ends_read_as_the_two_nets_and_the_middle_between(
    fine_convs: int, second_stride: int
) -> None:
    start, end = (
        _trained_net(seed, fine_convs=fine_convs, second_stride=second_stride) for seed in (1, 2)
    )
    crops = torch.rand(6, 3, 48, 48) * 2 - 1
    for share, expected in ((0.0, start), (1.0, end)):
        for got, want in zip(
            _read(interpolate(start, end, share), crops), _read(expected, crops), strict=True
        ):
            torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
    middle = interpolate(start, end, 0.5)
    for mixed, a, b in zip(
        folded_weights(middle), folded_weights(start), folded_weights(end), strict=True
    ):
        torch.testing.assert_close(mixed[0], (a[0] + b[0]) / 2)
        torch.testing.assert_close(mixed[1], (a[1] + b[1]) / 2)
    top = _read(middle, crops)[0]
    assert not torch.allclose(top, _read(start, crops)[0], atol=1e-3)
    assert not torch.allclose(top, _read(end, crops)[0], atol=1e-3)


def test_refuses_a_share_outside_the_two_nets_or_nets_of_other_inputs() -> None:
    with pytest.raises(ValueError, match=r"share 1\.5"):
        interpolate(_trained_net(1), _trained_net(2), 1.5)
    with pytest.raises(ValueError, match="view tangents"):
        interpolate(_trained_net(1), _trained_net(2, views=True), 0.5)
    with pytest.raises(ValueError, match="1 and 2 convolutions at full resolution"):
        interpolate(_trained_net(1), _trained_net(2, fine_convs=2), 0.5)
    with pytest.raises(ValueError, match="laid out otherwise"):
        interpolate(_trained_net(1), _trained_net(2, second_stride=2), 0.5)

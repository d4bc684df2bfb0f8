// libtorch's messages as the embedded engine tells them: one line, without the C++ backtrace
// or the TorchScript traceback.
#include "core/torch/torcherror.h"

#include <QTest>

using namespace pyrometer::torch;

class TestTorchError : public QObject {
    Q_OBJECT
private slots:
    void cleansLibtorchMessages_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("clean");
        QTest::addRow("torchscript traceback")
            << "The following operation failed in the TorchScript interpreter.\nTraceback of TorchScript, serialized "
               "code (most recent call last):\n"
               "  File \"code/__torch__/torch/nn/modules/conv.py\", line 12, in forward\n    input = "
               "torch._convolution(x, weight)\n"
               "            ~~~~~~~~~~~~~~~~~~ <--- HERE\nRuntimeError: Given groups=1, weight of size [16, 3, 3, 3], "
               "expected input[1, 1, 32, 32] to "
               "have 3 channels, but got 1 channels instead\n"
            << "Given groups=1, weight of size [16, 3, 3, 3], expected input[1, 1, 32, 32] to have 3 channels, but got "
               "1 channels instead";
        QTest::addRow("c++ backtrace") << "mat1 and mat2 shapes cannot be multiplied (1x5 and 8x4)\nException raised "
                                          "from meta at foo.cpp:1 (most recent call "
                                          "first):\nframe #0: c10::Error::Error() + 0x9e"
                                       << "mat1 and mat2 shapes cannot be multiplied (1x5 and 8x4)";
    }
    void cleansLibtorchMessages()
    {
        QFETCH(QString, what);
        QFETCH(QString, clean);
        QCOMPARE(QString::fromStdString(cleanTorchMessage(what.toStdString())), clean);
    }
};

QTEST_GUILESS_MAIN(TestTorchError)
#include "tst_torcherror.moc"
